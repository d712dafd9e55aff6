module github.com/pctk/pctk

go 1.26.0

require (
	github.com/ebitengine/purego v0.11.3
	github.com/hschendel/stl v1.0.4
	github.com/paulmach/orb v0.14.0
	github.com/ungerik/go3d v0.0.0-20251020194721-1bde1320d420
	github.com/urfave/cli/v2 v2.27.7
	golang.org/x/image v0.48.0
	golang.org/x/sys v0.50.0
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	go.mongodb.org/mongo-driver/v2 v2.5.0 // indirect
)
