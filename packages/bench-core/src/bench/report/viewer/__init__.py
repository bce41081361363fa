"""``bench view``: a local web viewer of the stored runs (``serve``), labelling tasks with ``--label``."""

from bench.report.viewer.labels import Labelling
from bench.report.viewer.server import serve

__all__ = ["Labelling", "serve"]
