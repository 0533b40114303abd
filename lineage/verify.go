package lineage

// Unordered returns how many nodes of the directed graph given by edges (senior, junior) cannot
// be topologically ordered: 0 exactly when the graph has no cycle. It is Kahn's algorithm,
// independent of the reachability check the writer uses, so it can verify that writer.
func Unordered(edges [][2]int64) int {
	out := map[int64][]int64{}
	indeg := map[int64]int{}
	for _, e := range edges {
		out[e[0]] = append(out[e[0]], e[1])
		indeg[e[1]]++
		if _, ok := indeg[e[0]]; !ok {
			indeg[e[0]] = 0
		}
	}
	var ready []int64
	for n, d := range indeg {
		if d == 0 {
			ready = append(ready, n)
		}
	}
	ordered := 0
	for len(ready) > 0 {
		n := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		ordered++
		for _, m := range out[n] {
			if indeg[m]--; indeg[m] == 0 {
				ready = append(ready, m)
			}
		}
	}
	return len(indeg) - ordered
}
