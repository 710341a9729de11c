"""GL614 step-before-pending-backward: the rule (`rule`) and which backward passes an optimizer step
leaves pending (`stale_backward`)."""
