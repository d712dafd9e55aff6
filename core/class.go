package core

// asprsClasses are the names of the ASPRS classification codes of LAS 1.4
// R15, table 17 (point formats 6 to 10; 0 to 12 mean the same in formats 0
// to 5).
var asprsClasses = map[int]string{
	0: "Created, never classified", 1: "Unclassified", 2: "Ground", 3: "Low vegetation",
	4: "Medium vegetation", 5: "High vegetation", 6: "Building", 7: "Low noise",
	8: "Reserved (model key-point)", 9: "Water", 10: "Rail", 11: "Road surface",
	12: "Reserved (overlap)", 13: "Wire guard", 14: "Wire conductor", 15: "Transmission tower",
	16: "Wire connector", 17: "Bridge deck", 18: "High noise", 19: "Overhead structure",
	20: "Ignored ground", 21: "Snow", 22: "Temporal exclusion",
}

// ClassName returns the ASPRS name of classification code c: "Ground" for
// 2, "Reserved" for 23 to 63, "User definable" for 64 to 255, "" outside
// 0 to 255.
func ClassName(c int) string {
	switch n, ok := asprsClasses[c]; {
	case ok:
		return n
	case c >= 23 && c <= 63:
		return "Reserved"
	case c >= 64 && c <= 255:
		return "User definable"
	}
	return ""
}
