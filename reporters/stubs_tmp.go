package reporters

import (
	"errors"
	"io"

	"github.com/betplan/betplan/engine"
)

// WriteHTML is coming next.
func WriteHTML(w io.Writer, r *engine.Result) error { return errors.New("not written yet") }
