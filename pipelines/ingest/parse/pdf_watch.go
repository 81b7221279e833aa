package parse

import (
	"context"
	"reflect"

	"github.com/klippa-app/go-pdfium"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
)

// instanceWatch stops a pdfium instance when the parse's ctx is done.
// go-pdfium runs every wasm call under the instance's own context, not the
// caller's, so ctx alone cannot stop a call that loops on a hostile file.
// Closing the instance's wasm module does: with close-on-context-done,
// wazero checks for a closed module inside loops and the running call
// fails with a sys.ExitError.
//
// The module is closed directly rather than through go-pdfium's Kill,
// because Kill writes the instance's closed flag with no lock while the
// parsing goroutine reads it on every call (a data race); after the module
// is closed every call fails, and release's Close tidies up as usual.
type instanceWatch struct {
	inst pdfium.Pdfium
	stop chan struct{}
	done chan struct{}
	// killed is written by the watching goroutine before it closes done,
	// and read by release after done is closed.
	killed bool
}

// watchInstance watches ctx for inst, whose wasm module is mod (nil if
// unknown: then it uses Kill).
func watchInstance(ctx context.Context, inst pdfium.Pdfium, mod api.Module) *instanceWatch {
	w := &instanceWatch{inst: inst, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		select {
		case <-ctx.Done():
			if mod != nil {
				_ = mod.CloseWithExitCode(context.Background(), sys.ExitCodeDeadlineExceeded)
				return
			}
			w.killed = true
			_ = inst.Kill()
		case <-w.stop:
		}
	}()
	return w
}

// release stops the watch and gives the instance back, unless it was
// killed (Kill already tore it down).
func (w *instanceWatch) release() {
	close(w.stop)
	<-w.done
	if !w.killed {
		_ = w.inst.Close()
	}
}

// instanceModule returns the wasm module of a go-pdfium webassembly
// instance: the exported Module field of what GetImplementation returns
// (its type is in an internal package, so it is reached by reflection).
// It returns nil if a go-pdfium version lays that out differently; the
// watch then falls back to Kill.
func instanceModule(inst pdfium.Pdfium) api.Module {
	v := reflect.ValueOf(inst.GetImplementation())
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	f := v.FieldByName("Module")
	if !f.IsValid() || !f.CanInterface() {
		return nil
	}
	mod, _ := f.Interface().(api.Module)
	return mod
}
