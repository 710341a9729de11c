import torch


class Logged(torch.Tensor):
    @staticmethod
    def __new__(cls, data):
        return torch.Tensor._make_subclass(cls, data, require_grad=data.requires_grad)


def rebuild(t, requires_grad, as_parameter):
    if as_parameter:
        t = torch.nn.Parameter(t, requires_grad=requires_grad)
    else:
        t.requires_grad = requires_grad
    return t


x = Logged(torch.ones(2))
y = rebuild(torch.zeros(2), True, False)
