"""Offline preview and policy review: run a Pulumi Python program under mocks, drive the policy pack
over the analyzer protocol as the engine does, and report."""
