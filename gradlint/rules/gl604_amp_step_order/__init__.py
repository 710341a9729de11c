"""GL604 amp-step-order: the rule (`rule`) and what each training loop does with a `GradScaler`, in
order (`amp`)."""
