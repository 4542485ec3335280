MATCH (t:Task {id: $id})
RETURN t.id AS id, t.domain AS domain, t.status AS status, t.reason AS reason, t.seed AS seed,
       t.run AS run, t.created_at AS created_at, t.generator_version AS generator_version,
       t.prompt AS prompt, t.reference AS reference, t.verifier AS verifier, t.evidence AS evidence
