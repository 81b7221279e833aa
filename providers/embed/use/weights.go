package use

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// manifest is the part of a TensorFlow.js graph model's model.json that
// names the weights: which shard files, in order, hold which tensors. The
// graph itself (modelTopology) is not read: the layers are written in Go.
type manifest struct {
	WeightsManifest []struct {
		Paths   []string `json:"paths"`
		Weights []struct {
			Name         string          `json:"name"`
			Shape        []int           `json:"shape"`
			DType        string          `json:"dtype"`
			Quantization json.RawMessage `json:"quantization"`
		} `json:"weights"`
	} `json:"weightsManifest"`
}

// tensor is one float32 weight of the graph.
type tensor struct {
	shape []int
	data  []float32
}

// readWeights reads the float32 weights that dir/model.json's manifest
// lists from its shards, by name. Integer tensors (the graph's shape
// constants) are skipped: the Go layers know their shapes.
func readWeights(dir string) (map[string]tensor, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		return nil, err
	}
	var m manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("model.json: %w", err)
	}
	out := make(map[string]tensor)
	for _, group := range m.WeightsManifest {
		r := &shardReader{dir: dir, paths: group.Paths}
		for _, w := range group.Weights {
			if len(w.Quantization) > 0 && string(w.Quantization) != "null" {
				return nil, fmt.Errorf("model.json: weight %s is quantized; only float32 weights are supported", w.Name)
			}
			n := 1
			for _, d := range w.Shape {
				n *= d
			}
			switch w.DType {
			case "float32":
				data := make([]float32, n)
				if err := r.readFloats(data); err != nil {
					return nil, fmt.Errorf("weight %s: %w", w.Name, err)
				}
				out[w.Name] = tensor{shape: w.Shape, data: data}
			case "int32":
				if err := r.skip(4 * n); err != nil {
					return nil, fmt.Errorf("weight %s: %w", w.Name, err)
				}
			default:
				return nil, fmt.Errorf("model.json: weight %s has dtype %s", w.Name, w.DType)
			}
		}
		if err := r.close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// shardReader reads a weight group's shards as one little-endian stream,
// one shard file open at a time, so loading holds no more than the
// weights and a small buffer.
type shardReader struct {
	dir   string
	paths []string
	f     *os.File
	buf   [16 << 10]byte
}

// read fills p from the shards in order.
func (r *shardReader) read(p []byte) error {
	for len(p) > 0 {
		if r.f == nil {
			if len(r.paths) == 0 {
				return io.ErrUnexpectedEOF
			}
			f, err := os.Open(filepath.Join(r.dir, filepath.FromSlash(r.paths[0])))
			if err != nil {
				return err
			}
			r.f, r.paths = f, r.paths[1:]
		}
		n, err := r.f.Read(p)
		p = p[n:]
		if err == io.EOF {
			_ = r.f.Close()
			r.f = nil
		} else if err != nil {
			return err
		}
	}
	return nil
}

// readFloats fills dst with the next len(dst) float32 values.
func (r *shardReader) readFloats(dst []float32) error {
	for len(dst) > 0 {
		n := min(len(dst), len(r.buf)/4)
		b := r.buf[:4*n]
		if err := r.read(b); err != nil {
			return err
		}
		for i := range n {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		dst = dst[n:]
	}
	return nil
}

// skip passes over n bytes.
func (r *shardReader) skip(n int) error {
	for n > 0 {
		k := min(n, len(r.buf))
		if err := r.read(r.buf[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// close closes the open shard.
func (r *shardReader) close() error {
	if r.f != nil {
		return r.f.Close()
	}
	return nil
}
