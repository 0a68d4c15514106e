package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// openVectors opens a vectors file, gunzipping one whose name ends in .gz
// (the repository keeps its copies compressed).
func openVectors(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return f, err
	}
	z, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return gzipFile{z, f}, nil
}

// gzipFile closes the gzip stream and the file under it.
type gzipFile struct {
	*gzip.Reader
	file *os.File
}

func (g gzipFile) Close() error {
	err := g.Reader.Close()
	if cerr := g.file.Close(); err == nil {
		err = cerr
	}
	return err
}
