// Package picture is the picture code every engine and the judge share:
// reading an image (Sniff, Probe, Decode: jpeg, png or webp, at most
// MaxPixels), its EXIF orientation (Orientation reads it from a JPEG's
// APP1, a PNG's eXIf or a WebP's EXIF chunk, Upright applies it, Decode
// does both, and the upload's Inspect reports it), the memory decoding
// takes (Cost, for the process's imagemem.Budget), writing one
// (EncodeJPEG at quality 90, EncodePNG with alpha; WebP is read, never
// written), resampling and fitting (Resize, FitInside, FitCanvas,
// Conform), extending a canvas around an image (Extend), and the colour
// spaces: 8-bit sRGB, linear light and CIE L*a*b* under D65 (ToLinear,
// FromLinear, ToLab, FromLab).
//
// It sits below the engines: engine/local, engine/fal, engine/imageapi and
// the judge import it, and it imports none of them (nor package engine),
// so a new provider is a sibling folder of the others that imports this
// package, never another engine. Its faults are an *Error with a plain
// reason; package engine names the tool and input role in them
// (engine.DecodeInput, engine.ProbeInput).
//
// Decoding does not take memory itself: a caller holds Cost's bytes from
// the process's imagemem.Budget around the work (the worker around a
// develop, the judge around a look), since the work makes copies beside
// the decoded pixels.
//
// Pictures in flight are *image.NRGBA at the origin (non-premultiplied, so
// a cut-out's colours survive its alpha). Everything here is deterministic:
// the same bytes give the same pixels.
package picture
