package segment

// graph is a flow network for the Boykov-Kolmogorov max-flow algorithm
// ("An Experimental Comparison of Min-Cut/Max-Flow Algorithms for Energy
// Minimization in Vision", PAMI 2004): two search trees, one from the source
// and one from the sink, grow until they touch, the path found is augmented,
// and the nodes cut off from their tree (orphans) look for a new parent
// before the trees grow again. Trees are kept between augmentations, which
// is what makes it fast on the grid graphs of image segmentation.
//
// Capacities are integers (int32), so "saturated" is exact. Every node has a
// terminal capacity trCap: positive is an edge from the source, negative one
// to the sink (only the difference of the two matters to the cut). Arcs come
// in pairs a, a^1 (an arc and its sister, the reverse direction).
type graph struct {
	// nodes
	first  []int32 // first outgoing arc, or -1
	parent []int32 // arc to the parent in its tree, or none, terminal, orphan
	next   []int32 // next active node; -1 when not active, itself when last
	ts     []int32 // time the distance to the terminal was last checked
	dist   []int32 // distance to the terminal along the tree
	sink   []bool  // in the sink tree (meaningful when parent != none)
	trCap  []int32 // residual terminal capacity: > 0 from the source, < 0 to the sink

	// arcs
	head []int32 // node the arc points to
	link []int32 // next arc out of the same node, or -1
	rCap []int32 // residual capacity

	flow int64

	queueFirst, queueLast int32
	orphans               []int32
	time                  int32
}

const (
	none     int32 = -1
	terminal int32 = -2
	orphan   int32 = -3
	infDist  int32 = 1<<31 - 1
)

// newGraph returns a graph of n nodes with room for the given number of
// edges (each edge is two arcs).
func newGraph(n, edges int) *graph {
	g := &graph{
		first:  make([]int32, n),
		parent: make([]int32, n),
		next:   make([]int32, n),
		ts:     make([]int32, n),
		dist:   make([]int32, n),
		sink:   make([]bool, n),
		trCap:  make([]int32, n),
		head:   make([]int32, 0, 2*edges),
		link:   make([]int32, 0, 2*edges),
		rCap:   make([]int32, 0, 2*edges),
	}
	for i := range g.first {
		g.first[i] = none
	}
	return g
}

// addEdge adds the edge i -> j with capacity c and j -> i with capacity rc,
// and returns the index of the arc i -> j (its sister is the index + 1).
func (g *graph) addEdge(i, j int32, c, rc int32) int32 {
	a := int32(len(g.head))
	g.head = append(g.head, j, i)
	g.link = append(g.link, g.first[i], g.first[j])
	g.rCap = append(g.rCap, c, rc)
	g.first[i] = a
	g.first[j] = a + 1
	return a
}

// setTerminal sets node i's capacities from the source and to the sink.
// Only their difference reaches the search; the common part is flow that
// must pass anyway and is added to the total.
func (g *graph) setTerminal(i int32, fromSource, toSink int32) {
	m := min(fromSource, toSink)
	g.flow += int64(m)
	g.trCap[i] = fromSource - toSink
}

// reset clears the search state so that the capacities can be set again and
// the flow computed anew on the same topology.
func (g *graph) reset() {
	g.flow = 0
	g.orphans = g.orphans[:0]
	g.time = 0
}

func (g *graph) setActive(i int32) {
	if g.next[i] != none {
		return
	}
	if g.queueLast != none {
		g.next[g.queueLast] = i
	} else {
		g.queueFirst = i
	}
	g.queueLast = i
	g.next[i] = i
}

// nextActive pops active nodes until one that is still in a tree.
func (g *graph) nextActive() int32 {
	for {
		i := g.queueFirst
		if i == none {
			return none
		}
		if g.next[i] == i {
			g.queueFirst, g.queueLast = none, none
		} else {
			g.queueFirst = g.next[i]
		}
		g.next[i] = none
		if g.parent[i] != none {
			return i
		}
	}
}

func (g *graph) addOrphan(i int32) {
	g.parent[i] = orphan
	g.orphans = append(g.orphans, i)
}

// maxflow computes the maximum flow and returns its value. Afterwards
// inSource tells the side of the minimum cut each node is on.
func (g *graph) maxflow() int64 {
	g.pushDirect()
	g.queueFirst, g.queueLast = none, none
	for i := range g.first {
		g.next[i] = none
		g.ts[i] = 0
		switch {
		case g.trCap[i] > 0:
			g.sink[i] = false
			g.parent[i] = terminal
			g.dist[i] = 1
			g.setActive(int32(i))
		case g.trCap[i] < 0:
			g.sink[i] = true
			g.parent[i] = terminal
			g.dist[i] = 1
			g.setActive(int32(i))
		default:
			g.parent[i] = none
		}
	}
	current := none
	for {
		i := current
		if i != none {
			g.next[i] = none
			if g.parent[i] == none {
				i = none
			}
		}
		if i == none {
			if i = g.nextActive(); i == none {
				break
			}
		}
		// Grow the tree of i.
		found := none
		if !g.sink[i] {
			for a := g.first[i]; a != none; a = g.link[a] {
				if g.rCap[a] == 0 {
					continue
				}
				j := g.head[a]
				switch {
				case g.parent[j] == none:
					g.sink[j] = false
					g.parent[j] = a ^ 1
					g.ts[j] = g.ts[i]
					g.dist[j] = g.dist[i] + 1
					g.setActive(j)
				case g.sink[j]:
					found = a
				case g.ts[j] <= g.ts[i] && g.dist[j] > g.dist[i]:
					g.parent[j] = a ^ 1
					g.ts[j] = g.ts[i]
					g.dist[j] = g.dist[i] + 1
				}
				if found != none {
					break
				}
			}
		} else {
			for a := g.first[i]; a != none; a = g.link[a] {
				if g.rCap[a^1] == 0 {
					continue
				}
				j := g.head[a]
				switch {
				case g.parent[j] == none:
					g.sink[j] = true
					g.parent[j] = a ^ 1
					g.ts[j] = g.ts[i]
					g.dist[j] = g.dist[i] + 1
					g.setActive(j)
				case !g.sink[j]:
					found = a ^ 1
				case g.ts[j] <= g.ts[i] && g.dist[j] > g.dist[i]:
					g.parent[j] = a ^ 1
					g.ts[j] = g.ts[i]
					g.dist[j] = g.dist[i] + 1
				}
				if found != none {
					break
				}
			}
		}
		g.time++
		if found == none {
			current = none
			continue
		}
		// i stays active: it may have more paths to the other tree.
		g.next[i] = i
		current = i
		g.augment(found)
		g.adopt()
	}
	return g.flow
}

// pushDirect saturates the paths of length three, source -> i -> j ->
// sink, before the search: on image graphs most of the flow goes that way,
// and pushing it in one pass leaves the trees far less to do.
func (g *graph) pushDirect() {
	for a := 0; a < len(g.head); a++ {
		i, j := g.head[a^1], g.head[a]
		if g.trCap[i] <= 0 || g.trCap[j] >= 0 || g.rCap[a] == 0 {
			continue
		}
		f := min(g.trCap[i], -g.trCap[j], g.rCap[a])
		g.trCap[i] -= f
		g.trCap[j] += f
		g.rCap[a] -= f
		g.rCap[a^1] += f
		g.flow += int64(f)
	}
}

// augment pushes the bottleneck capacity along the path through the middle
// arc a (from the source tree to the sink tree) and turns the nodes whose
// arc to the parent saturated into orphans.
func (g *graph) augment(middle int32) {
	bottleneck := g.rCap[middle]
	var i int32
	for i = g.head[middle^1]; ; i = g.head[g.parent[i]] {
		a := g.parent[i]
		if a == terminal {
			break
		}
		bottleneck = min(bottleneck, g.rCap[a^1])
	}
	bottleneck = min(bottleneck, g.trCap[i])
	for i = g.head[middle]; ; i = g.head[g.parent[i]] {
		a := g.parent[i]
		if a == terminal {
			break
		}
		bottleneck = min(bottleneck, g.rCap[a])
	}
	bottleneck = min(bottleneck, -g.trCap[i])

	g.rCap[middle^1] += bottleneck
	g.rCap[middle] -= bottleneck
	for i = g.head[middle^1]; ; {
		a := g.parent[i]
		if a == terminal {
			break
		}
		g.rCap[a] += bottleneck
		g.rCap[a^1] -= bottleneck
		next := g.head[a]
		if g.rCap[a^1] == 0 {
			g.addOrphan(i)
		}
		i = next
	}
	g.trCap[i] -= bottleneck
	if g.trCap[i] == 0 {
		g.addOrphan(i)
	}
	for i = g.head[middle]; ; {
		a := g.parent[i]
		if a == terminal {
			break
		}
		g.rCap[a^1] += bottleneck
		g.rCap[a] -= bottleneck
		next := g.head[a]
		if g.rCap[a] == 0 {
			g.addOrphan(i)
		}
		i = next
	}
	g.trCap[i] += bottleneck
	if g.trCap[i] == 0 {
		g.addOrphan(i)
	}
	g.flow += int64(bottleneck)
}

// adopt finds each orphan a new parent in its own tree whose path reaches
// the terminal, preferring the shortest; an orphan without one becomes free
// and its children become orphans in turn.
func (g *graph) adopt() {
	for k := 0; k < len(g.orphans); k++ {
		i := g.orphans[k]
		g.processOrphan(i, g.sink[i])
	}
	g.orphans = g.orphans[:0]
}

func (g *graph) processOrphan(i int32, sink bool) {
	best, dMin := none, infDist
	for a0 := g.first[i]; a0 != none; a0 = g.link[a0] {
		// A source orphan takes flow from j (the arc j -> i must have
		// room); a sink orphan sends flow to j.
		c := g.rCap[a0^1]
		if sink {
			c = g.rCap[a0]
		}
		if c == 0 {
			continue
		}
		j := g.head[a0]
		if g.sink[j] != sink || g.parent[j] == none {
			continue
		}
		// Walk to the root of j, measuring the distance.
		d := int32(0)
		k := j
		for {
			if g.ts[k] == g.time {
				d += g.dist[k]
				break
			}
			a := g.parent[k]
			d++
			if a == terminal {
				g.ts[k] = g.time
				g.dist[k] = 1
				break
			}
			if a == orphan {
				d = infDist
				break
			}
			k = g.head[a]
		}
		if d == infDist {
			continue
		}
		if d < dMin {
			best, dMin = a0, d
		}
		for k = j; g.ts[k] != g.time; k = g.head[g.parent[k]] {
			g.ts[k] = g.time
			g.dist[k] = d
			d--
		}
	}
	g.parent[i] = best
	if best != none {
		g.ts[i] = g.time
		g.dist[i] = dMin + 1
		return
	}
	// No parent: i becomes free; its neighbours in the tree may grow into
	// it again, and its children are orphans now.
	for a0 := g.first[i]; a0 != none; a0 = g.link[a0] {
		j := g.head[a0]
		if g.sink[j] != sink || g.parent[j] == none {
			continue
		}
		c := g.rCap[a0^1]
		if sink {
			c = g.rCap[a0]
		}
		if c > 0 {
			g.setActive(j)
		}
		if a := g.parent[j]; a != terminal && a != orphan && g.head[a] == i {
			g.addOrphan(j)
		}
	}
}

// inSource reports whether node i is on the source side of the minimum cut
// (reachable from the source in the residual graph). Free nodes are on the
// sink side.
func (g *graph) inSource(i int32) bool {
	return g.parent[i] != none && !g.sink[i]
}
