import torch


def get_loss(model_output):
    loss = 0.0
    if isinstance(model_output, torch.Tensor):
        return model_output.sum()
    for value in model_output.values():
        loss += get_loss(value)
    return loss


w = torch.ones(2, requires_grad=True)
get_loss({"a": w * 2, "b": {"c": w * 3}}).backward()
