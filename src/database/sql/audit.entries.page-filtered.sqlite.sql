select "e"."id", "e"."at", "e"."actor_id", "e"."actor_label", "e"."via", "e"."action", "e"."target", "e"."client_address", "e"."details", "e"."prev_hash", "e"."hash"
from "audit_entries" as "e"
where "e"."action" like ? and ("e"."actor_id" = ? or "e"."actor_label" = ?) and "e"."target" = ? and "e"."at" >= ? and "e"."at" < ? and "e"."id" < ?
order by "e"."id" desc
limit ?
