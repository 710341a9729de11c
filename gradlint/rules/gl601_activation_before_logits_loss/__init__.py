"""GL601 activation-before-logits-loss: the rule (`rule`) and which loss a call computes and whether
it is fed probabilities or logits (`loss_inputs`)."""
