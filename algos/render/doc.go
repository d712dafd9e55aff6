// Package render draws a point cloud as an orthographic picture: from the
// top, the front or the side, each pixel showing the nearest point, coloured
// by height, intensity, ASPRS classification, cluster, normal, RGB or any
// attribute, with a legend or colour bar and a scale bar.
//
// Points are splatted as squares into a z-buffer shared by all cores: each
// pixel holds a 64-bit key, the point's depth above its index, lowered by
// an atomic compare-and-swap, so the nearest point wins and, at equal depth,
// the lowest index; the picture is therefore the same whatever the number
// of goroutines. Colours are looked up only for the winning points.
//
// Cluster colours come from a 12-colour palette assigned greedily over the
// clusters that touch in the picture, so that neighbouring clusters differ.
// Classification colours follow the common ASPRS conventions (ground brown,
// vegetation greens, buildings red, water blue, wires yellow, noise
// magenta).
package render
