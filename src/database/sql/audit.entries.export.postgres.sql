select "e"."id", "e"."at", "e"."actor_id", "e"."actor_label", "e"."via", "e"."action", "e"."target", "e"."client_address", "e"."details", "e"."prev_hash", "e"."hash"
from "audit_entries" as "e"
where "e"."action" = $1 and "e"."actor_label" = $2 and "e"."at" >= $3 and "e"."id" > $4
order by "e"."id" asc
limit $5
