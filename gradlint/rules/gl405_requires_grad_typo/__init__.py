"""GL405 requires-grad-typo: the rule (`rule`) and which attributes the file reads back
(`attribute_reads`)."""
