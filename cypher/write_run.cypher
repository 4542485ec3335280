MERGE (r:Run {id: $id})
SET r.domain = $domain, r.seed = $seed, r.params = $params, r.started = $started, r.finished = $finished
