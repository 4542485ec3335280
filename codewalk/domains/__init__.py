"""Built-in domains; each registers under the `codewalk.domains` entry-point group like a plugin would."""
