package segtest

import (
	"bufio"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Sample is one photograph of the calibration set: real photographs kept
// in the repository (photos/, one folder per source, each with the
// README that gives its licence), with what a person sees in it.
type Sample struct {
	Name   string
	Source string // the folder: skimage, matplotlib, scipy, sklearn, go, clothing-dataset
	Kind   string // portrait, figure, garment, product, several, scene or texture
	Note   string
	Path   string
	Img    *image.NRGBA
}

// PhotosDir is the calibration set's folder.
func PhotosDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "photos")
}

// Calibration reads the calibration set, in the order of photos/photos.tsv.
func Calibration() ([]Sample, error) {
	dir := PhotosDir()
	rows, err := ReadTable(filepath.Join(dir, "photos.tsv"), 3)
	if err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.jpg"))
	if err != nil {
		return nil, err
	}
	where := map[string]string{}
	for _, p := range paths {
		where[strings.TrimSuffix(filepath.Base(p), ".jpg")] = p
	}
	out := make([]Sample, 0, len(rows))
	for _, r := range rows {
		path, ok := where[r[0]]
		if !ok {
			return nil, fmt.Errorf("calibration: no photograph %s.jpg", r[0])
		}
		img := Load(filepath.Base(path), []string{filepath.Dir(path)})
		if img == nil {
			return nil, fmt.Errorf("calibration: %s does not decode", path)
		}
		out = append(out, Sample{Name: r[0], Source: filepath.Base(filepath.Dir(path)), Kind: r[1], Note: r[2], Path: path, Img: NRGBA(img)})
		delete(where, r[0])
	}
	for name := range where {
		return nil, fmt.Errorf("calibration: %s.jpg is not in photos.tsv", name)
	}
	return out, nil
}

// ReadTable reads a tab-separated file of rows of n fields, skipping
// blank lines and lines starting with #.
func ReadTable(path string, n int) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		t := sc.Text()
		if strings.TrimSpace(t) == "" || strings.HasPrefix(t, "#") {
			continue
		}
		fields := strings.Split(t, "\t")
		if len(fields) != n {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", path, line, len(fields), n)
		}
		rows = append(rows, fields)
	}
	return rows, sc.Err()
}
