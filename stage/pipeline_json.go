package stage

import (
	"encoding/json"
	"fmt"
	"strings"
)

// pipelineStages returns the stages of a pipeline JSON object: its one
// member "pipeline". Another member, or "pipeline" twice, is an error
// naming the key, rather than a key silently ignored or overridden.
func pipelineStages(data []byte) ([]json.RawMessage, error) {
	o, err := orderedObject(data)
	if err != nil {
		return nil, err
	}
	for _, e := range o {
		if e.key != "pipeline" {
			return nil, fmt.Errorf("unknown key %q (a pipeline file holds \"pipeline\": [...] alone)", e.key)
		}
	}
	raw, ok := o.raw("pipeline")
	if !ok {
		return nil, fmt.Errorf("no \"pipeline\" key")
	}
	var stages []json.RawMessage
	if err := json.Unmarshal(raw, &stages); err != nil {
		return nil, fmt.Errorf("\"pipeline\": %v", err)
	}
	return stages, nil
}

// raw returns the value of key as written.
func (o object) raw(key string) (json.RawMessage, bool) {
	for _, e := range o {
		if e.key == key {
			return e.value, true
		}
	}
	return nil, false
}

// pdalDims maps PDAL's "dimensions" of a neighbour search ("X,Y" or
// "X,Y,Z", any case, commas or spaces) to --dims xy or xyz; other
// dimensions (GpsTime) are an error naming them, as pctk searches in
// space alone.
func pdalDims(s string) (string, error) {
	names := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ',' || r == ' ' })
	switch strings.Join(names, ",") {
	case "x,y":
		return "xy", nil
	case "x,y,z":
		return "xyz", nil
	}
	return "", fmt.Errorf("dimensions %q: pctk searches X,Y or X,Y,Z", s)
}
