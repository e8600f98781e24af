package segment

import (
	"math/rand/v2"
	"testing"
)

// refMaxflow is Edmonds-Karp on a dense capacity matrix with the source at
// n and the sink at n+1: slow, obviously right, for checking graph.
func refMaxflow(n int, edges [][4]int32, src, snk []int32) int64 {
	m := n + 2
	c := make([][]int64, m)
	for i := range c {
		c[i] = make([]int64, m)
	}
	for _, e := range edges {
		c[e[0]][e[1]] += int64(e[2])
		c[e[1]][e[0]] += int64(e[3])
	}
	for i := range n {
		c[n][i] += int64(src[i])
		c[i][n+1] += int64(snk[i])
	}
	var flow int64
	prev := make([]int, m)
	for {
		for i := range prev {
			prev[i] = -1
		}
		prev[n] = n
		queue := []int{n}
		for len(queue) > 0 && prev[n+1] < 0 {
			u := queue[0]
			queue = queue[1:]
			for v := range m {
				if prev[v] < 0 && c[u][v] > 0 {
					prev[v] = u
					queue = append(queue, v)
				}
			}
		}
		if prev[n+1] < 0 {
			return flow
		}
		b := int64(1 << 62)
		for v := n + 1; v != n; v = prev[v] {
			b = min(b, c[prev[v]][v])
		}
		for v := n + 1; v != n; v = prev[v] {
			c[prev[v]][v] -= b
			c[v][prev[v]] += b
		}
		flow += b
	}
}

// checkFlow builds the graph, runs both algorithms and checks the flow
// values agree and that the cut graph reports has exactly that capacity.
func checkFlow(t *testing.T, n int, edges [][4]int32, src, snk []int32) {
	t.Helper()
	g := newGraph(n, len(edges))
	for _, e := range edges {
		g.addEdge(e[0], e[1], e[2], e[3])
	}
	for i := range n {
		g.setTerminal(int32(i), src[i], snk[i])
	}
	got := g.maxflow()
	want := refMaxflow(n, edges, src, snk)
	if got != want {
		t.Fatalf("maxflow = %d, want %d (n=%d, edges=%v, src=%v, snk=%v)", got, want, n, edges, src, snk)
	}
	// The capacity of the cut graph reports equals the flow.
	var cut int64
	for i := range n {
		s := g.inSource(int32(i))
		if s {
			cut += int64(snk[i])
		} else {
			cut += int64(src[i])
		}
	}
	for _, e := range edges {
		si, sj := g.inSource(e[0]), g.inSource(e[1])
		if si && !sj {
			cut += int64(e[2])
		}
		if sj && !si {
			cut += int64(e[3])
		}
	}
	if cut != want {
		t.Fatalf("cut capacity = %d, flow %d", cut, want)
	}
}

func randomGraph(r *rand.Rand, n, m int) ([][4]int32, []int32, []int32) {
	edges := make([][4]int32, 0, m)
	for range m {
		i, j := r.IntN(n), r.IntN(n)
		if i == j {
			continue
		}
		edges = append(edges, [4]int32{int32(i), int32(j), int32(r.IntN(20)), int32(r.IntN(20))})
	}
	src, snk := make([]int32, n), make([]int32, n)
	for i := range n {
		switch r.IntN(3) {
		case 0:
			src[i] = int32(r.IntN(30))
		case 1:
			snk[i] = int32(r.IntN(30))
		default:
			src[i], snk[i] = int32(r.IntN(30)), int32(r.IntN(30))
		}
	}
	return edges, src, snk
}

func TestMaxflowMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		n := 2 + r.IntN(30)
		edges, src, snk := randomGraph(r, n, r.IntN(4*n))
		checkFlow(t, n, edges, src, snk)
	}
}

func TestMaxflowGrid(t *testing.T) {
	// A 4-connected grid like the segmentation's, checked against the reference.
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		w, h := 3+r.IntN(8), 3+r.IntN(8)
		n := w * h
		var edges [][4]int32
		for y := range h {
			for x := range w {
				i := int32(y*w + x)
				if x+1 < w {
					c := int32(r.IntN(15))
					edges = append(edges, [4]int32{i, i + 1, c, c})
				}
				if y+1 < h {
					c := int32(r.IntN(15))
					edges = append(edges, [4]int32{i, i + int32(w), c, c})
				}
			}
		}
		src, snk := make([]int32, n), make([]int32, n)
		for i := range n {
			src[i], snk[i] = int32(r.IntN(40)), int32(r.IntN(40))
		}
		checkFlow(t, n, edges, src, snk)
	}
}

// FuzzMaxflow reads a graph from bytes (node count, then edges and terminal
// capacities) and checks the flow against the reference and the cut.
func FuzzMaxflow(f *testing.F) {
	f.Add([]byte{4, 0, 1, 5, 2, 1, 2, 3, 3, 2, 3, 7, 0, 9, 0, 0, 4, 3, 3, 0, 8})
	f.Add([]byte{2, 0, 1, 1, 1, 5, 0, 0, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		n := 2 + int(data[0])%14
		data = data[1:]
		src, snk := make([]int32, n), make([]int32, n)
		for i := range n {
			if len(data) < 2 {
				break
			}
			src[i], snk[i] = int32(data[0]), int32(data[1])
			data = data[2:]
		}
		var edges [][4]int32
		for len(data) >= 4 && len(edges) < 64 {
			i, j := int(data[0])%n, int(data[1])%n
			if i != j {
				edges = append(edges, [4]int32{int32(i), int32(j), int32(data[2]), int32(data[3])})
			}
			data = data[4:]
		}
		checkFlow(t, n, edges, src, snk)
	})
}

// TestMaxflowReuse changes the terminal capacities after a flow and runs
// again on the residual graph, as the segmentation's rounds do: the cut it
// finds must be a minimum cut of the new capacities.
func TestMaxflowReuse(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 100 {
		n := 2 + r.IntN(25)
		edges, _, _ := randomGraph(r, n, r.IntN(4*n))
		g := newGraph(n, len(edges))
		for _, e := range edges {
			g.addEdge(e[0], e[1], e[2], e[3])
		}
		net := make([]int32, n)
		for i := range n {
			net[i] = int32(r.IntN(61) - 30)
			g.trCap[i] = net[i]
		}
		g.maxflow()
		src, snk := make([]int32, n), make([]int32, n)
		for i := range n {
			d := int32(r.IntN(61) - 30)
			g.trCap[i] += d - net[i]
			if d > 0 {
				src[i] = d
			} else {
				snk[i] = -d
			}
		}
		g.maxflow()
		var cut int64
		for i := range n {
			if g.inSource(int32(i)) {
				cut += int64(snk[i])
			} else {
				cut += int64(src[i])
			}
		}
		for _, e := range edges {
			si, sj := g.inSource(e[0]), g.inSource(e[1])
			if si && !sj {
				cut += int64(e[2])
			}
			if sj && !si {
				cut += int64(e[3])
			}
		}
		if want := refMaxflow(n, edges, src, snk); cut != want {
			t.Fatalf("cut after reuse = %d, min cut %d", cut, want)
		}
	}
}
