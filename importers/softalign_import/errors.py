"""The refusal error, apart from the readers so that the command line starts (its help,
its error for a missing PyTorch) where torch is not installed."""


class ImportRefused(Exception):
    """A checkpoint the format cannot express (or cannot be read): the message names the
    option and the checkpoint; nothing is written. The command line exits with code 2."""
