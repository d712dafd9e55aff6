package laz

// Placeholders until lazB's layered.go lands (then this file goes).

func decodeLayeredChunk(items []Item, src []byte, n int, dst []byte, sel Selection) error {
	return &UnsupportedError{Msg: "layered chunks (point formats 6-10) are not decoded yet"}
}

func encodeLayeredChunk(items []Item, recs []byte, n int) ([]byte, error) {
	return nil, &UnsupportedError{Msg: "layered chunks (point formats 6-10) are not encoded yet"}
}
