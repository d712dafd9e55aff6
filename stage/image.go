package stage

import (
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"path/filepath"
	"strings"

	"github.com/pctk/pctk/io/pcio"
)

// jpegQuality is the quality of the JPEG pictures pctk writes.
const jpegQuality = 90

// imageFormat returns the picture format a path's extension asks for:
// "png" (and for standard output), "jpeg", or "" for another extension.
func imageFormat(path string) string {
	if path == pcio.Stdio {
		return "png"
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return "png"
	case ".jpg", ".jpeg":
		return "jpeg"
	}
	return ""
}

// CheckImagePath checks, before any work, that a picture's path (what: the
// flag or argument that names it) ends in .png, .jpg or .jpeg, so that
// its bytes are what its name says.
func CheckImagePath(what, path string) error {
	if imageFormat(path) == "" {
		return Usagef("%s %s: want a .png, .jpg or .jpeg picture", what, path)
	}
	return nil
}

// EncodeImage writes img to w in the format of path (CheckImagePath).
func EncodeImage(path string, w io.Writer, img image.Image) error {
	if imageFormat(path) == "jpeg" {
		return jpeg.Encode(w, img, &jpeg.Options{Quality: jpegQuality})
	}
	return png.Encode(w, img)
}
