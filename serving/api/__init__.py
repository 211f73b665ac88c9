"""The HTTP layer: request/response models, dependencies and one router per resource."""
