package cuda

// CString copies the NUL-terminated C string at p, owned by a C library
// (the driver, libnvoptix); 0 gives "". For pctk's other purego bindings.
func CString(p uintptr) string { return cString(p) }
