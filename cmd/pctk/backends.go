package main

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "backends",
		Usage: "list the neighbour-search backends, whether each can run here and why, and what auto picks",
		Description: "Each backend is probed here: cpu always runs, cuda and optix need an NVIDIA driver\n" +
			"(and OptiX). --backend auto on the other commands picks the first that runs.\n" +
			"The probes check the driver, the GPU and the OptiX library without starting OptiX;\n" +
			"--full starts it too (its device context) to read the GPU's RT cores.\n\n" +
			"Examples:\n" +
			"   pctk backends\n" +
			"   pctk backends --full --json",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the list as JSON"},
			&cli.BoolFlag{Name: "full", Usage: "start the backends that a probe leaves unstarted (OptiX: its device context, for the RT-core version); slower"},
		},
		Action: runBackends,
	})
}

type backendStatus struct {
	Name      string            `json:"name"`
	Available bool              `json:"available"`
	Reason    string            `json:"reason,omitempty"`
	Device    string            `json:"device,omitempty"`
	Priority  int               `json:"priority"`
	Details   map[string]string `json:"details,omitempty"`
}

// deviceProber is implemented by backends whose Probe leaves their device
// unstarted (optix): ProbeDevice starts it and reports what only a started
// device tells (the RT cores), for pctk backends --full.
type deviceProber interface {
	ProbeDevice() (findneighbor.Info, error)
}

// probe probes b, starting its device with full (deviceProber).
func probe(b findneighbor.Backend, full bool) (findneighbor.Info, error) {
	if d, ok := b.(deviceProber); ok && full {
		return d.ProbeDevice()
	}
	return b.Probe()
}

func runBackends(c *cli.Context) error {
	// Probes run concurrently: the GPU backends' start-ups (the driver,
	// with --full OptiX) then overlap instead of adding up.
	bs := findneighbor.Backends()
	list := make([]backendStatus, len(bs))
	var wg sync.WaitGroup
	for i, b := range bs {
		wg.Go(func() {
			t := time.Now()
			info, err := probe(b, c.Bool("full"))
			msg.Debugf("probe %s: %v", b.Name(), time.Since(t).Round(time.Millisecond))
			list[i] = backendStatus{Name: b.Name(), Available: err == nil, Device: info.Device, Priority: info.Priority, Details: info.Details}
			if err != nil {
				list[i].Reason = err.Error()
			}
		})
	}
	wg.Wait()
	auto := ""
	if b, err := findneighbor.Auto(); err == nil {
		auto = b.Name()
	}
	if c.Bool("json") {
		return stage.PrintJSON(struct {
			Auto     string          `json:"auto"`
			AutoKNN  string          `json:"auto_knn"` // for normals and statistical removal (cpuWork)
			Backends []backendStatus `json:"backends"`
		}{auto, stage.BackendName("auto", true), list})
	}
	for _, s := range list {
		if !s.Available {
			fmt.Printf("%-12s unavailable: %s\n", s.Name, s.Reason)
			continue
		}
		fmt.Printf("%-12s available   %s (priority %d)\n", s.Name, s.Device, s.Priority)
		keys := make([]string, 0, len(s.Details))
		for k := range s.Details {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Printf("%-12s   %s: %s\n", "", k, s.Details[k])
		}
	}
	fmt.Printf("auto picks: %s (%s for normals and denoise statistical)\n", auto, stage.BackendName("auto", true))
	return nil
}
