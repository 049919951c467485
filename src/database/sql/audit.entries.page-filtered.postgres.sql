select "e"."id", "e"."at", "e"."actor_id", "e"."actor_label", "e"."via", "e"."action", "e"."target", "e"."client_address", "e"."details", "e"."prev_hash", "e"."hash"
from "audit_entries" as "e"
where "e"."action" like $1 and ("e"."actor_id" = $2 or "e"."actor_label" = $3) and "e"."target" = $4 and "e"."at" >= $5 and "e"."at" < $6 and "e"."id" < $7
order by "e"."id" desc
limit $8
