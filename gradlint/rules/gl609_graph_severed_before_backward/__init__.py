"""GL609 graph-severed-before-backward: the rule (`rule`) and which tensors are rebuilt from a value
whose graph was cut (`severed`)."""
