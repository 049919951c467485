with "m" as materialized (select "b"."id", "b"."version_name" as "k"
from "builds" as "b"
where "b"."search_text" like $1 escape '\' and "b"."search_text" like $2 escape '\' and "b"."status_label" = $3) select "m"."id"
from "m"
order by "m"."k" asc nulls last, "m"."id" asc
limit $4
offset $5
