"""codewalk: compositional coding benchmarks from verified atoms (the CodeWalk paper).

Library entry points: `codewalk.store.open_store`, `codewalk.admission.walk_and_admit`,
`codewalk.domain.get_domain`, `codewalk.loading.load`, `codewalk.demo.run_demo`.
"""

__version__ = "0.1.0"
