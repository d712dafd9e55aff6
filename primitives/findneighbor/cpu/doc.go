// Package cpu is the "cpu" backend of package findneighbor, which it
// registers when imported: for a finite ε a uniform grid of cells about ε
// wide, points sorted cell by cell (grid.go); for ε = +Inf a kd-tree
// searched leaf by leaf (kdtree.go, kdbatch.go); queries in parallel on
// GOMAXPROCS goroutines, with AVX-512 kernels in Go assembly where the CPU
// has them (docs/avx512.md). Its indexes implement every optional
// capability (Momenter, ClusterCorer, SelfMomenter) and its backend
// Framer, OnHoster and PlainKNNer. docs/findneighbor.md describes the
// design and its measurements.
package cpu
