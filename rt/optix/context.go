package optix

import (
	"unsafe"

	"github.com/pctk/pctk/rt/cuda"
)

// DeviceContext is an OptiX device context (OptixDeviceContext) on a CUDA
// context, with a stream of its own on which its builds, copies and
// launches run. Its methods that take a *cuda.Thread run inside the CUDA
// context's Do.
type DeviceContext struct {
	ctx      *cuda.Context
	handle   uintptr
	stream   cuda.Stream
	rtCore   uint32
	maxPrims uint32
}

// NewDeviceContext loads the OptiX library (Load), creates an OptiX device
// context on ctx and a stream, and reads the device's RT-core version and
// primitive limit. pctk keeps its device contexts for the process's life:
// there is no Destroy.
func NewDeviceContext(ctx *cuda.Context) (*DeviceContext, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	c := &DeviceContext{ctx: ctx}
	err := ctx.Do(func(t *cuda.Thread) error {
		var opts deviceContextOptions
		if err := call("optixDeviceContextCreate", fns.DeviceContextCreate, ctx.Handle(),
			uintptr(unsafe.Pointer(&opts)), uintptr(unsafe.Pointer(&c.handle))); err != nil {
			return err
		}
		if err := c.property(propRTCoreVersion, &c.rtCore); err != nil {
			return err
		}
		if err := c.property(propMaxPrimitivesPerGAS, &c.maxPrims); err != nil {
			return err
		}
		var err error
		c.stream, err = t.NewStream()
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (c *DeviceContext) property(p uint32, v *uint32) error {
	return call("optixDeviceContextGetProperty", fns.DeviceContextGetProperty, c.handle,
		uintptr(p), uintptr(unsafe.Pointer(v)), 4)
}

// CUDA returns the CUDA context the device context runs on.
func (c *DeviceContext) CUDA() *cuda.Context { return c.ctx }

// Stream returns the context's stream: copies that feed its builds and
// launches go there, so that they are ordered with them.
func (c *DeviceContext) Stream() cuda.Stream { return c.stream }

// RTCoreVersion returns OPTIX_DEVICE_PROPERTY_RTCORE_VERSION: 0 on a GPU
// without RT cores, where OptiX traverses in software on the SMs.
func (c *DeviceContext) RTCoreVersion() uint32 { return c.rtCore }

// MaxPrimitivesPerGAS returns the most primitives one GAS may hold.
func (c *DeviceContext) MaxPrimitivesPerGAS() uint32 { return c.maxPrims }
