package engine

import "fmt"

// Instruction is an edit tool's own instruction to a model that edits a
// picture from words (fal's kontext models, FASHN's edit): what iron,
// color-change, fit-adjust and camera-lens ask, from their options; ""
// for any other tool. A provider sends it first and the house's direction
// after it, never instead of it.
func Instruction(r Request) string {
	switch r.Tool {
	case "iron":
		return "Remove the wrinkles and creases from the garment as if it were freshly steamed. Keep its colour, pattern, seams, cut and everything else in the image unchanged."
	case "color-change":
		return "Change the colour of the garment to " + r.Param("color") + ". Keep its shading, texture, folds, shape and everything else in the image unchanged."
	case "fit-adjust":
		fit, _ := ParseFit(r.Param("fit"))
		return "Make the garment a " + string(fit) + " fit. Keep the person, pose, fabric, colour and background unchanged."
	case "camera-lens":
		lens := DefaultLens
		if s := r.Param("lens"); s != "" {
			lens, _ = ParseLens(s)
		}
		return lensInstruction(lens)
	}
	return ""
}

func lensInstruction(l Lens) string {
	if l.Macro {
		return "Re-shoot this photo with a macro lens: a razor-thin plane of focus on the garment's detail, everything else falling off into soft blur. Keep the subject, colours and composition."
	}
	character := "natural perspective"
	switch {
	case l.Focal <= 28:
		character = "wide-angle perspective with slight barrel distortion and visible vignetting"
	case l.Focal <= 40:
		character = "a reportage feel, mild barrel distortion and gentle vignetting"
	case l.Focal >= 70:
		character = "portrait compression, a creamy out-of-focus background and a slight vignette"
	}
	return fmt.Sprintf("Re-shoot this photo as if taken with a %s lens on a full-frame camera: %s. Keep the subject, garments, colours and composition.", l, character)
}
