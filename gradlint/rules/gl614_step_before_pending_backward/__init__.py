"""GL614 step-before-pending-backward: the rule (`rule`), which backward passes an optimizer step
leaves pending (`stale_backward`), and when the loss can be computed again after the step by
moving its statement (`recompute`)."""
