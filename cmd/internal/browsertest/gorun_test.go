package browsertest

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
)

// goRun runs the go command in this directory, its output to w.
func goRun(w io.Writer, args ...string) error {
	var stderr bytes.Buffer
	cmd := exec.Command("go", args...)
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %v: %w: %s", args, err, stderr.String())
	}
	return nil
}
