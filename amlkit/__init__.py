"""amlkit: Azure Machine Learning infrastructure as code and guardrails, built on Pulumi."""

__all__ = ["__version__"]

__version__ = "0.3.0"
