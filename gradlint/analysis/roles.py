"""The roles names play in training code: one naming vocabulary for every analysis and rule.

Roles: model (with the generator and discriminator of a GAN), criterion, optimizer, scheduler,
scaler, and the values they produce (outputs, losses). Names are the weakest evidence an analysis
has, so each question asks for exactly the breadth it needs: where two analyses need different
breadths for the same role, each is a named variant here, and widening one never widens another.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Optional

import libcst as cst

from gradlint.analysis import torch_api


class Role(Enum):
    MODEL = "model"
    GENERATOR = "generator"
    DISCRIMINATOR = "discriminator"
    CRITERION = "criterion"
    OPTIMIZER = "optimizer"
    SCHEDULER = "scheduler"
    SCALER = "scaler"
    LOADER = "loader"


# -- models -----------------------------------------------------------------------------------

# A callee whose result is a tensor: `model(x)`, `netD(x)`, `rnn(x)`.
MODEL_CALL = re.compile(
    r"^(model|net|netd|netg|generator|discriminator|encoder|decoder|classifier|policy|critic|actor|rnn|lstm|gru|cnn|mlp|[dg])$",
    re.IGNORECASE,
)
# A callee whose result carries autograd history; wider, as layers count too (`fc(x)`, `layer2(x)`).
MODEL_CALLEE = re.compile(
    r"^(model|net|network|net_?[dg]|generator|discriminator|encoder|decoder|classifier|policy|critic|actor|"
    r"backbone|head|[dg]|lstm|rnn|gru|mlp|cnn|linear|fc|layer\d*)$",
    re.IGNORECASE,
)
# A variable or attribute holding an `nn.Module` instance; suffixes allowed (`model_ema`, `encoder2`).
MODULE_INSTANCE = re.compile(
    r"^(model|models|net|network|netd|netg|generator|discriminator|encoder|decoder|backbone|classifier|"
    r"head|critic|actor|policy|module|teacher|student|feature_extractor|embedding|embeddings|[dg])(_\w+|\d+)?$",
    re.IGNORECASE,
)

# The two networks of a GAN, and their optimizers (`optD`, `optimizer_d`, `g_optim`...).
_GAN_NETWORK_WORDS = {
    Role.DISCRIMINATOR: r"d|disc|discriminator\w*|critic|net_?d|d_?net|model_?d|d_?model",
    Role.GENERATOR: r"g|gen|generator\w*|net_?g|g_?net|model_?g|g_?model",
}
_OPTIMIZER_WORDS = r"opt|optim|optimizer|optimiser"


def _gan_optimizer(words: str) -> str:
    return rf"(?:(?:{_OPTIMIZER_WORDS})_?(?:{words})|(?:{words})_?(?:{_OPTIMIZER_WORDS}))"


GAN_NETWORK = {role: re.compile(rf"^(?:{words})$", re.IGNORECASE) for role, words in _GAN_NETWORK_WORDS.items()}
GAN_OPTIMIZER = {role: re.compile(rf"^{_gan_optimizer(words)}$", re.IGNORECASE) for role, words in _GAN_NETWORK_WORDS.items()}
# Somewhere in a file's text: the cheap test of whether it may step a discriminator's optimizer.
DISCRIMINATOR_OPTIMIZER_IN_TEXT = re.compile(rf"\b{_gan_optimizer(_GAN_NETWORK_WORDS[Role.DISCRIMINATOR])}\b", re.IGNORECASE)

# Tensor methods that keep a network's output (and its graph) on the way into the next network.
SHAPE_METHODS = torch_api.methods("same-values")

# -- criteria, optimizers, schedulers, scalers --------------------------------------------------

CRITERION = re.compile(r"^(criterion\w*|\w*loss_fn\w*|\w*loss_func\w*|\w*_loss|loss_function|crit)$", re.IGNORECASE)
# `optimizer`, `opt`, `optim_g`, `optimizer_D`, `g_optim`, `d_optimizer`, `self.opt_disc`...
OPTIMIZER = re.compile(r"^(?:\w+_)?(?:optim|optimizer|opt)(?:_\w+|\d+)?$|^optimi[sz]er\w*$", re.IGNORECASE)
_SCHEDULER_WORDS = r"sched"
# Searched in a name that `OPTIMIZER` matches: schedulers, environments, options that look like one.
NOT_OPTIMIZER = re.compile(rf"{_SCHEDULER_WORDS}|env|option|opts?_?args|opt_level|optional", re.IGNORECASE)
SCALER = re.compile(r"scaler", re.IGNORECASE)  # searched: `scaler`, `grad_scaler`, `self.amp_scaler`
# `scheduler`, `lr_scheduler`, `sched`, `scheduler_g`, `warmup_scheduler2`.
SCHEDULER = re.compile(r"^(?:\w+_)?(?:sched|scheduler)(?:_\w+|\d+)?$", re.IGNORECASE)

# -- data -------------------------------------------------------------------------------------

# An iterable of batches: `loader`, `train_loader`, `trainloader`, `dataloaders`, `train_dl`.
LOADER = re.compile(r"^(\w*loader\w*|(\w+_)?dl)$", re.IGNORECASE)
# A function or method returning a batch: `get_batch(...)`, `digits.batch()`, `next_batch()`.
BATCH_SOURCE = re.compile(r"^((\w+_)?batch(es)?|(get|next|sample|load|make|random)_\w*batch\w*)$", re.IGNORECASE)

# A method returning a recurrent network's first state, zeros by the idiom of the 0.3-era tutorials
# and examples: `model.init_hidden(batch_size)`, `rnn.initHidden()`, `net.begin_state(n)`.
FRESH_STATE_METHOD = re.compile(r"^(init_?hidden(_?state)?|init_?state|zero_?state|begin_?state)$", re.IGNORECASE)

# -- values -----------------------------------------------------------------------------------

# A name holding a tensor computed by a model: `loss`, `logits`, `outputs`, `pred_2`.
TENSOR_VALUE = re.compile(r"(^|_)(loss|losses|nll|logits?|outputs?|preds?|prediction|scores?)(_|\d|$)", re.IGNORECASE)
# A name holding one number: a loss, or a count of correct predictions.
LOSS_VALUE = re.compile(r"^(\w*_)?(loss|nll|cost|kld|kl|bce|mse|elbo)(_\w*)?$|^(correct|n_correct|num_correct)$", re.IGNORECASE)


def is_optimizer_name(name: str) -> bool:
    return bool(OPTIMIZER.match(name)) and not NOT_OPTIMIZER.search(name)


def is_scaler_name(name: str) -> bool:
    return bool(SCALER.search(name))


def is_criterion_name(name: str) -> bool:
    return bool(CRITERION.match(name))


def is_scheduler_name(name: str) -> bool:
    return bool(SCHEDULER.match(name))


def is_loader_name(name: str) -> bool:
    return bool(LOADER.match(name))


def is_batch_source_name(name: str) -> bool:
    return bool(BATCH_SOURCE.match(name))


def is_fresh_state_method(name: str) -> bool:
    return bool(FRESH_STATE_METHOD.match(name))


def gan_network_role(name: str) -> Optional[Role]:
    """DISCRIMINATOR for `D`, `netD`, `critic`; GENERATOR for `G`, `netG`, `generator`."""
    for role, pattern in GAN_NETWORK.items():
        if pattern.match(name):
            return role
    return None


def gan_optimizer_role(name: str) -> Optional[Role]:
    """The network whose optimizer `name` is by its name: `optD`, `d_optimizer` -> DISCRIMINATOR."""
    for role, pattern in GAN_OPTIMIZER.items():
        if pattern.match(name):
            return role
    return None


class Roles:
    """Role questions about the names of one file, asked through `FileContext.roles`."""

    def gan_network(self, callee: cst.BaseExpression) -> Optional[Role]:
        """The GAN network a callee names: `D`, `netG`, `self.discriminator`; not `other.D`."""
        if type(callee) is cst.Name:
            return gan_network_role(callee.value)
        if type(callee) is cst.Attribute and type(callee.value) is cst.Name and callee.value.value == "self":
            return gan_network_role(callee.attr.value)
        return None

    def gan_output(self, value: cst.BaseExpression) -> Optional[Role]:
        """The GAN network whose output `value` is: `G(z)`, `self.netG(z).view(n, -1)`; not `G(z).detach()`."""
        while type(value) is cst.Call:
            role = self.gan_network(value.func)
            if role is not None:
                return role
            if type(value.func) is cst.Attribute and value.func.attr.value in SHAPE_METHODS:
                value = value.func.value
                continue
            return None
        return None

    def gan_optimizer(self, dotted: Optional[str]) -> Optional[Role]:
        """The network whose optimizer the dotted name `self.opt_d` is, by its last part."""
        return None if dotted is None else gan_optimizer_role(dotted.rsplit(".", 1)[-1])
