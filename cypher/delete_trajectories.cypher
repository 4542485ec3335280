// The rows an export wrote before (its folder written again): removed, so the graph holds only its current rows.
MATCH (j:Trajectory)
WHERE j.export = $export
DETACH DELETE j
