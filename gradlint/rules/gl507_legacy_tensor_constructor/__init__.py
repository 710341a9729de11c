"""GL507 legacy-tensor-constructor: the rule (`rule`) and what a legacy constructor's arguments
evidently are, sizes or data, and where the default device changes (`evidence`)."""
