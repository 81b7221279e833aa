package use

import (
	"fmt"
)

// Dimensions of USE-lite, as model.json's weights give them.
const (
	// Dim is the length of an embedding.
	Dim = 512
	// embedDim is the width of the token embeddings and of layer 0's
	// attention.
	embedDim = 256
	// ffnDim is the inner width of both feed-forward blocks.
	ffnDim = 1536
	// heads is the number of attention heads of each layer.
	heads = 4
	// vocabRows is the embedding table's height (8,000 pieces and 2 spare
	// rows that no piece reaches).
	vocabRows = 8002
	// timingWidth is half the timing signal's width: sines, then cosines.
	timingWidth = embedDim / 2
)

// MaxTokens is how many pieces of a text the encoder reads; the graph's
// ClipToMaxLength drops the rest.
const MaxTokens = 128

// Weight names in model.json (the graph's frozen constants).
const (
	prefixApply = "module_apply_default/Encoder_en/KonaTransformer/Encode/"
	prefixVar   = "module/Encoder_en/KonaTransformer/Encode/"
	prefixStack = prefixApply + "TransformerStack/"
)

// layer is one transformer layer: pre-norm self-attention and pre-norm
// feed-forward block, each with a residual connection.
type layer struct {
	in, headDim int
	// qScale multiplies the queries (1/sqrt(headDim), from the graph).
	qScale float32
	// eps is added to the variance in the layer norms.
	eps float32
	// fast selects the assembly matrix kernel (the CPU has AVX2 and FMA).
	fast bool

	lnScale, lnBias []float32 // [in]
	qkvW            matrix    // [in, 3*in]
	qkvB            []float32 // [3*in]
	outW            matrix    // [in, Dim]
	outB            []float32 // [Dim]
	// adjW, adjB project the residual to Dim where in != Dim (layer 0's
	// AdjustResidualInput); nil otherwise.
	adjW *matrix
	adjB []float32

	ffnLnScale, ffnLnBias []float32 // [Dim]
	ffn1W                 matrix    // [Dim, ffnDim]
	ffn1B                 []float32 // [ffnDim]
	ffn2W                 matrix    // [ffnDim, Dim]
	ffn2B                 []float32 // [Dim]
}

// model holds every weight the forward pass uses.
type model struct {
	embeddings []float32 // [vocabRows, embedDim]
	// invTimescales are the frequencies of the timing signal [timingWidth].
	invTimescales []float32
	layers        [2]layer
	// tanhW, tanhB are the output layer after mean pooling.
	tanhW matrix    // [Dim, Dim]
	tanhB []float32 // [Dim]
	// l2Eps is the floor of the squared norm in the final normalisation.
	l2Eps float32
	// fast selects the assembly matrix kernel (the CPU has AVX2 and FMA).
	fast bool
}

// weightSet looks weights up by name and shape, remembering the first
// mismatch so that building the model reads as a list of fields.
type weightSet struct {
	w   map[string]tensor
	err error
}

// get returns the named weight, which must have the given shape.
func (s *weightSet) get(name string, shape ...int) []float32 {
	t, ok := s.w[name]
	if !ok {
		if s.err == nil {
			s.err = fmt.Errorf("model.json: no weight %s", name)
		}
		return nil
	}
	if !sameShape(t.shape, shape) {
		if s.err == nil {
			s.err = fmt.Errorf("model.json: weight %s has shape %v, want %v", name, t.shape, shape)
		}
		return nil
	}
	return t.data
}

// matrix returns the named weight, of shape [k, n] (or [1, 1, k, n], a
// 1x1 convolution's kernel), packed for the kernel.
func (s *weightSet) matrix(name string, k, n int, conv bool) matrix {
	var d []float32
	if conv {
		d = s.get(name, 1, 1, k, n)
	} else {
		d = s.get(name, k, n)
	}
	if d == nil {
		return matrix{}
	}
	m, err := packMatrix(d, k, n)
	if err != nil && s.err == nil {
		s.err = fmt.Errorf("weight %s: %w", name, err)
	}
	return m
}

// scalar returns the named one-value weight.
func (s *weightSet) scalar(name string) float32 {
	d := s.get(name)
	if d == nil {
		return 0
	}
	return d[0]
}

// sameShape compares two shapes.
func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// newModel picks the weights out of the loaded tensors.
func newModel(w map[string]tensor) (*model, error) {
	s := &weightSet{w: w}
	m := &model{
		embeddings:    s.get("module/Embeddings_en", vocabRows, embedDim),
		invTimescales: s.get(prefixStack+"Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", 1, timingWidth),
		tanhW:         s.matrix("module/Encoder_en/hidden_layers/tanh_layer_0/weights", Dim, Dim, false),
		tanhB:         s.get("module/Encoder_en/hidden_layers/tanh_layer_0/bias", Dim),
		l2Eps:         s.scalar("module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y"),
		fast:          hasFMA(),
	}
	eps := s.scalar(prefixStack + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x")
	for i, in := range []int{embedDim, Dim} {
		l := &m.layers[i]
		name := fmt.Sprintf("Layer_%d/TransformerLayer/", i)
		a, v, st := prefixApply+name, prefixVar+name, prefixStack+name
		l.in, l.headDim, l.eps, l.fast = in, in/heads, eps, m.fast
		l.qScale = s.scalar(st + "MultiheadAttention/mul/y")
		l.lnScale = s.get(a+"layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", in)
		l.lnBias = s.get(a+"layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", in)
		l.qkvW = s.matrix(v+"MultiheadAttention/qkv_transform_single/kernel/part_0", in, 3*in, true)
		l.qkvB = s.get(a+"MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat", 3*in)
		l.outW = s.matrix(v+"MultiheadAttention/output_transform_single/kernel/part_0", in, Dim, true)
		l.outB = s.get(a+"MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat", Dim)
		if in != Dim {
			adj := s.matrix(a+"dense/kernel/ConcatPartitions/concat", in, Dim, false)
			l.adjW = &adj
			l.adjB = s.get(a+"dense/bias/ConcatPartitions/concat", Dim)
		}
		l.ffnLnScale = s.get(a+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat", Dim)
		l.ffnLnBias = s.get(a+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat", Dim)
		l.ffn1W = s.matrix(st+"FFN/conv1/Tensordot/Reshape_1", Dim, ffnDim, false)
		l.ffn1B = s.get(a+"FFN/conv1/bias/ConcatPartitions/concat", ffnDim)
		l.ffn2W = s.matrix(st+"FFN/conv2/Tensordot/Reshape_1", ffnDim, Dim, false)
		l.ffn2B = s.get(a+"FFN/conv2/bias/ConcatPartitions/concat", Dim)
	}
	if s.err != nil {
		return nil, s.err
	}
	return m, nil
}
