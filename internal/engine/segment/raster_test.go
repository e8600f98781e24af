package segment

import (
	"slices"
	"strings"
	"testing"
)

// TestComponents: parts touching by a corner are one (8-connected), labels
// are numbered in the order their first pixel is met, and sizes follow them.
func TestComponents(t *testing.T) {
	tests := []struct {
		name  string
		rows  []string
		label string // the labels, row after row; '.' outside
		sizes []int
	}{
		{"empty", []string{"...", "..."}, "......", nil},
		{"full", []string{"##", "##"}, "1111", []int{4}},
		{"corner touch", []string{"#..", ".#.", "..#"}, "1...1...1", []int{3}},
		{"two parts", []string{"##..#", "....#", "#...."}, "11..2....23....", []int{2, 2, 1}},
		{"ring", []string{"###", "#.#", "###"}, "1111.1111", []int{8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, h := len(tt.rows[0]), len(tt.rows)
			mask := make([]bool, 0, w*h)
			for _, row := range tt.rows {
				for _, c := range row {
					mask = append(mask, c == '#')
				}
			}
			label, sizes := Components(mask, w, h)
			var got strings.Builder
			for _, l := range label {
				if l == 0 {
					got.WriteByte('.')
				} else {
					got.WriteByte(byte('0' + l))
				}
			}
			if got.String() != tt.label || !slices.Equal(sizes, tt.sizes) {
				t.Errorf("labels %s sizes %v; want %s %v", got.String(), sizes, tt.label, tt.sizes)
			}
		})
	}
}
