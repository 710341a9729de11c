"""GL711 load-state-dict-result-ignored: the rule (`rule`) and which state dicts come from a checkpoint
file and which functions check what a load matched (`checkpoints`)."""
