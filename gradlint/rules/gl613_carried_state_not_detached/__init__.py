"""GL613 carried-state-not-detached: the rule (`rule`) and which state a loop feeds back to a model in
its next iteration (`carried_state`)."""
