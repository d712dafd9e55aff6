module github.com/pctk/pctk

go 1.26

require (
	github.com/chewxy/math32 v1.11.1 // indirect
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/hschendel/stl v1.0.4 // indirect
	github.com/paulmach/orb v0.14.0 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/ungerik/go3d v0.0.0-20251020194721-1bde1320d420 // indirect
	github.com/urfave/cli/v2 v2.27.7 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
	go.mongodb.org/mongo-driver/v2 v2.5.0 // indirect
)
