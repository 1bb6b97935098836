"""The engine boundary: contract types, fakes, replay and recording models, live clients.

``Model.complete(messages, tools) -> ModelResponse`` is the one seam an agent loop
calls; :mod:`~replaygate.models.providers` converts engine types to and from each
provider's wire shape.
"""
