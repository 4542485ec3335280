// A task, its IN_RUN edge and its ordered COMPOSES edges in one statement (Ladybug lists are 1-based).
UNWIND $tasks AS t
MERGE (k:Task {id: t.id})
ON CREATE SET k.domain = t.props.domain, k.level = t.props.level, k.status = t.props.status,
    k.reason = t.props.reason, k.seed = t.props.seed, k.run = t.props.run,
    k.created_at = t.props.created_at, k.generator_version = t.props.generator_version,
    k.prompt = t.props.prompt, k.reference = t.props.reference, k.verifier = t.props.verifier,
    k.evidence = t.props.evidence
WITH k, t
MATCH (r:Run {id: k.run})
MERGE (k)-[:IN_RUN]->(r)
WITH k, t
UNWIND range(1, size(t.atoms)) AS i
MATCH (a:Atom {id: t.atoms[i]})
MERGE (k)-[:COMPOSES {position: i - 1}]->(a)
