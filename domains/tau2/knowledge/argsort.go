package knowledge

// numpy's np.argsort(scores) for float64 (its default kind, an introsort:
// numpy/_core/src/npysort/quicksort.cpp, aquicksort_ and aheapsort_ as of
// numpy 1.24, its portable path). tau2's CosineRetriever takes
// np.argsort(scores)[::-1], so its order among equal scores is the one
// this partitioning leaves, reversed; reproducing it reproduces tau2's
// ties. Scores are finite here (replies with NaN are refused), so numpy's
// NaN-last comparison reduces to <.

// smallQuicksort is numpy's SMALL_QUICKSORT: partitions this short are
// insertion-sorted.
const smallQuicksort = 15

// npArgsort returns the indexes of v in numpy's argsort order.
func npArgsort(v []float64) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	if len(v) < 2 {
		return idx
	}
	aquicksort(v, idx)
	return idx
}

type span struct{ l, r, depth int }

// aquicksort is numpy's aquicksort_ on tosort = idx[0:n].
func aquicksort(v []float64, a []int) {
	pl, pr := 0, len(a)-1
	var stack []span
	cdepth := msb(len(a)) * 2
	for {
		if cdepth < 0 {
			aheapsort(v, a[pl:pr+1])
		} else {
			for pr-pl > smallQuicksort {
				pi := partition(v, a, pl, pr)
				// push the larger partition, go on with the smaller
				if pi-pl < pr-pi {
					cdepth--
					stack = append(stack, span{pi + 1, pr, cdepth})
					pr = pi - 1
				} else {
					cdepth--
					stack = append(stack, span{pl, pi - 1, cdepth})
					pl = pi + 1
				}
			}
			insertionSort(v, a, pl, pr)
		}
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		pl, pr, cdepth = top.l, top.r, top.depth
	}
}

// partition is one median-of-three quicksort partition of a[pl..pr]; it
// returns the pivot's final place.
func partition(v []float64, a []int, pl, pr int) int {
	pm := pl + (pr-pl)>>1
	if v[a[pm]] < v[a[pl]] {
		a[pm], a[pl] = a[pl], a[pm]
	}
	if v[a[pr]] < v[a[pm]] {
		a[pr], a[pm] = a[pm], a[pr]
	}
	if v[a[pm]] < v[a[pl]] {
		a[pm], a[pl] = a[pl], a[pm]
	}
	vp := v[a[pm]]
	pi, pj := pl, pr-1
	a[pm], a[pj] = a[pj], a[pm]
	for {
		for pi++; v[a[pi]] < vp; pi++ {
		}
		for pj--; vp < v[a[pj]]; pj-- {
		}
		if pi >= pj {
			break
		}
		a[pi], a[pj] = a[pj], a[pi]
	}
	pk := pr - 1
	a[pi], a[pk] = a[pk], a[pi]
	return pi
}

func insertionSort(v []float64, a []int, pl, pr int) {
	for pi := pl + 1; pi <= pr; pi++ {
		vi := a[pi]
		vp := v[vi]
		pj := pi
		for pj > pl && vp < v[a[pj-1]] {
			a[pj] = a[pj-1]
			pj--
		}
		a[pj] = vi
	}
}

// aheapsort is numpy's aheapsort_, its fallback past the depth limit.
func aheapsort(v []float64, tosort []int) {
	n := len(tosort)
	at := func(i int) *int { return &tosort[i-1] } // numpy's one-based a[]
	sift := func(tmp, i, n int) {
		for j := i << 1; j <= n; {
			if j < n && v[*at(j)] < v[*at(j + 1)] {
				j++
			}
			if !(v[tmp] < v[*at(j)]) {
				break
			}
			*at(i) = *at(j)
			i = j
			j += j
		}
		*at(i) = tmp
	}
	for l := n >> 1; l > 0; l-- {
		sift(*at(l), l, n)
	}
	for ; n > 1; n-- {
		tmp := *at(n)
		*at(n) = *at(1)
		sift(tmp, 1, n-1)
	}
}

// msb is numpy's npy_get_msb: the index of the highest set bit.
func msb(n int) int {
	d := 0
	for n >>= 1; n > 0; n >>= 1 {
		d++
	}
	return d
}
