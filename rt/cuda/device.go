package cuda

import (
	"fmt"
	"strings"
)

// Device attributes read by Devices (CUdevice_attribute values).
const (
	attrMaxThreadsPerBlock = 1
	attrMultiprocessors    = 16
	attrL2CacheSize        = 38
	attrComputeMajor       = 75
	attrComputeMinor       = 76
)

// DeviceInfo describes one GPU.
type DeviceInfo struct {
	// Ordinal is the device's index for the driver (0, 1, ...).
	Ordinal int
	// Name is the marketing name ("NVIDIA H200").
	Name string
	// Major and Minor are the compute capability (9 and 0 on Hopper).
	Major, Minor int
	// TotalMem is the device memory in bytes.
	TotalMem uint64
	// Multiprocessors is the number of streaming multiprocessors.
	Multiprocessors int
	// L2Cache is the L2 cache size in bytes.
	L2Cache int
	// MaxThreadsPerBlock is the largest block a kernel may be launched with.
	MaxThreadsPerBlock int
}

// Capability returns the compute capability as "9.0".
func (d DeviceInfo) Capability() string { return fmt.Sprintf("%d.%d", d.Major, d.Minor) }

// Devices lists the GPUs the driver sees. Without a driver the error wraps
// ErrNoDriver; with a driver but no GPU the list is empty and the error
// wraps ErrNoDriver too, since nothing can run.
func Devices() ([]DeviceInfo, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	var n int32
	if err := check("cuDeviceGetCount", drv.cuDeviceGetCount(&n)); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: the driver sees no GPU", ErrNoDriver)
	}
	out := make([]DeviceInfo, n)
	for i := range out {
		d, err := deviceInfo(i)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

func deviceInfo(ordinal int) (DeviceInfo, error) {
	d := DeviceInfo{Ordinal: ordinal}
	var dev int32
	if err := check("cuDeviceGet", drv.cuDeviceGet(&dev, int32(ordinal))); err != nil {
		return d, err
	}
	name := make([]byte, 256)
	if err := check("cuDeviceGetName", drv.cuDeviceGetName(&name[0], int32(len(name)), dev)); err != nil {
		return d, err
	}
	d.Name, _, _ = strings.Cut(string(name), "\x00")
	if err := check("cuDeviceTotalMem", drv.cuDeviceTotalMem(&d.TotalMem, dev)); err != nil {
		return d, err
	}
	for _, a := range []struct {
		attr int32
		dst  *int
	}{
		{attrComputeMajor, &d.Major},
		{attrComputeMinor, &d.Minor},
		{attrMultiprocessors, &d.Multiprocessors},
		{attrL2CacheSize, &d.L2Cache},
		{attrMaxThreadsPerBlock, &d.MaxThreadsPerBlock},
	} {
		var v int32
		if err := check("cuDeviceGetAttribute", drv.cuDeviceGetAttribute(&v, a.attr, dev)); err != nil {
			return d, err
		}
		*a.dst = int(v)
	}
	return d, nil
}
