package use

import (
	"math"

	"github.com/viterin/vek/vek32"
)

// scratch holds a forward pass's intermediate activations; an Encoder
// keeps a pool of them so that a call allocates little besides its result.
type scratch struct {
	x, h, res, qkv, ctx, att, ffn []float32
	scores                        []float32
	pooled, out                   []float32
}

// grow returns buf with length n, reallocated only when too small.
func grow(buf []float32, n int) []float32 {
	if cap(buf) < n {
		return make([]float32, n)
	}
	return buf[:n]
}

// forward encodes each sequence of piece ids (at most MaxTokens each; an
// empty one is allowed) into dst[i], a unit vector of Dim values. All
// sequences go through each matrix multiplication together; attention and
// pooling stay within a sequence, as the graph's padding mask makes them.
func (m *model) forward(seqs [][]int, dst [][]float32, sc *scratch) {
	rows := 0
	for _, s := range seqs {
		rows += len(s)
	}
	sc.x = grow(sc.x, rows*Dim)
	x := sc.x[:rows*embedDim]
	m.embed(seqs, x)
	for i := range m.layers {
		m.layers[i].apply(seqs, rows, sc)
	}
	m.pool(seqs, sc.x[:rows*Dim], dst, sc)
}

// embed writes the first layer's input: the graph adds the token
// embedding to (embedding + timing signal), so each row is twice the
// embedding plus the sinusoidal signal of its position.
func (m *model) embed(seqs [][]int, x []float32) {
	r := 0
	for _, s := range seqs {
		for pos, id := range s {
			row := x[r*embedDim : (r+1)*embedDim]
			e := m.embeddings[id*embedDim : (id+1)*embedDim]
			p := float32(pos)
			for k := range timingWidth {
				t := p * m.invTimescales[k]
				row[k] = e[k] + (e[k] + float32(math.Sin(float64(t))))
				row[k+timingWidth] = e[k+timingWidth] + (e[k+timingWidth] + float32(math.Cos(float64(t))))
			}
			r++
		}
	}
}

// apply runs the layer on sc.x ([rows, l.in]), leaving its output
// ([rows, Dim]) in sc.x.
func (l *layer) apply(seqs [][]int, rows int, sc *scratch) {
	in := l.in
	x := sc.x[:rows*in]
	sc.h = grow(sc.h, rows*Dim)
	h := sc.h[:rows*in]
	layerNorm(h, x, l.lnScale, l.lnBias, in, l.eps)

	sc.qkv = grow(sc.qkv, rows*3*in)
	linear(sc.qkv, h, l.qkvW, l.qkvB, rows, l.fast)
	sc.ctx = grow(sc.ctx, rows*in)
	l.attend(seqs, sc)
	sc.att = grow(sc.att, rows*Dim)
	y := sc.att
	linear(y, sc.ctx, l.outW, l.outB, rows, l.fast)

	// The residual: the input itself, or its projection to Dim.
	if l.adjW != nil {
		sc.res = grow(sc.res, rows*Dim)
		linear(sc.res, x, *l.adjW, l.adjB, rows, l.fast)
		vek32.Add_Inplace(y, sc.res)
	} else {
		vek32.Add_Inplace(y, x)
	}

	h = sc.h[:rows*Dim]
	layerNorm(h, y, l.ffnLnScale, l.ffnLnBias, Dim, l.eps)
	sc.ffn = grow(sc.ffn, rows*ffnDim)
	linear(sc.ffn, h, l.ffn1W, l.ffn1B, rows, l.fast)
	vek32.MaximumNumber_Inplace(sc.ffn, 0) // ReLU
	sc.h = grow(sc.h, rows*Dim)
	linear(sc.h, sc.ffn, l.ffn2W, l.ffn2B, rows, l.fast)
	vek32.Add_Inplace(y, sc.h[:rows*Dim])
	// The output becomes the next layer's input; the old input's buffer
	// (as long) is reused for the next layer's attention output.
	sc.x, sc.att = sc.att, sc.x
}

// attend computes scaled dot-product attention of each sequence's rows
// over its own rows, head by head, from sc.qkv ([rows, 3*in]: queries,
// keys, values) into sc.ctx ([rows, in], heads side by side).
func (l *layer) attend(seqs [][]int, sc *scratch) {
	in, hd := l.in, l.headDim
	stride := 3 * in
	start := 0
	for _, s := range seqs {
		n := len(s)
		sc.scores = grow(sc.scores, n+hd)
		w, q := sc.scores[:n], sc.scores[n:n+hd]
		for h := range heads {
			for i := range n {
				// The graph scales the queries before the product.
				vek32.MulNumber_Into(q, sc.qkv[(start+i)*stride+h*hd:(start+i)*stride+(h+1)*hd], l.qScale)
				maxScore := float32(math.Inf(-1))
				for j := range n {
					k := sc.qkv[(start+j)*stride+in+h*hd : (start+j)*stride+in+(h+1)*hd]
					w[j] = vek32.Dot(q, k)
					maxScore = max(maxScore, w[j])
				}
				var sum float32
				for j := range n {
					w[j] = float32(math.Exp(float64(w[j] - maxScore)))
					sum += w[j]
				}
				c := sc.ctx[(start+i)*in+h*hd : (start+i)*in+(h+1)*hd]
				clear(c)
				for j := range n {
					axpy(c, sc.qkv[(start+j)*stride+2*in+h*hd:(start+j)*stride+2*in+(h+1)*hd], w[j]/sum)
				}
			}
		}
		start += n
	}
}

// pool averages each sequence's rows of x ([rows, Dim]), applies the
// tanh layer and scales the result to unit length, into dst.
func (m *model) pool(seqs [][]int, x []float32, dst [][]float32, sc *scratch) {
	b := len(seqs)
	sc.pooled = grow(sc.pooled, b*Dim)
	start := 0
	for i, s := range seqs {
		p := sc.pooled[i*Dim : (i+1)*Dim]
		clear(p)
		for r := start; r < start+len(s); r++ {
			vek32.Add_Inplace(p, x[r*Dim:(r+1)*Dim])
		}
		// An empty text pools to zeros, as the graph's max(length, 1) does.
		vek32.DivNumber_Inplace(p, float32(max(len(s), 1)))
		start += len(s)
	}
	sc.out = grow(sc.out, b*Dim)
	linear(sc.out, sc.pooled, m.tanhW, m.tanhB, b, m.fast)
	for i := range seqs {
		o := sc.out[i*Dim : (i+1)*Dim]
		var ss float32
		for k, v := range o {
			t := float32(math.Tanh(float64(v)))
			o[k] = t
			ss += t * t
		}
		inv := float32(1 / math.Sqrt(float64(max(ss, m.l2Eps))))
		d := dst[i][:Dim]
		for k, v := range o {
			d[k] = v * inv
		}
	}
}

// layerNorm normalises each width-long row of x into dst, as the graph
// does: (scale * rsqrt(var + eps)) * (x - mean) + bias.
func layerNorm(dst, x, scale, bias []float32, width int, eps float32) {
	for r := 0; r < len(x)/width; r++ {
		row := x[r*width : (r+1)*width]
		out := dst[r*width : (r+1)*width]
		var sum float32
		for _, v := range row {
			sum += v
		}
		mean := sum / float32(width)
		var sq float32
		for k, v := range row {
			d := v - mean
			out[k] = d
			sq += d * d
		}
		inv := float32(1 / math.Sqrt(float64(sq/float32(width)+eps)))
		for k := range out {
			out[k] = scale[k]*inv*out[k] + bias[k]
		}
	}
}

// linear computes dst = x @ w + b for x [rows, w.k], b [w.n]; fast
// selects the assembly kernel.
func linear(dst, x []float32, w matrix, b []float32, rows int, fast bool) {
	n := w.n
	dst = dst[:rows*n]
	if rows == 0 {
		return
	}
	matMul(dst, x, w, rows, fast)
	for r := range rows {
		vek32.Add_Inplace(dst[r*n:(r+1)*n], b)
	}
}

// axpy adds a*x to y (len(x) == len(y)).
func axpy(y, x []float32, a float32) {
	x = x[:len(y)]
	for i, v := range x {
		y[i] += a * v
	}
}
