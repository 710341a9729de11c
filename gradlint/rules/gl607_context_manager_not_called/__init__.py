"""GL607 context-manager-not-called: the rule (`rule`) and what torch's grad-mode and autocast context
managers do when the call that creates one is left out (`context_managers`)."""
