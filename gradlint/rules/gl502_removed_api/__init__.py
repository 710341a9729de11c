"""GL502 removed-api: the rule (`rule`) and the evidence that an index is a uint8 mask
(`byte_masks`)."""
