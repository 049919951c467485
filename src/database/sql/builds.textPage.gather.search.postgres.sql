with "m" as materialized (select "b"."id", "b"."uploaded_at" as "k"
from "builds" as "b"
where "b"."search_text" like $1 escape '\') select "m"."id"
from "m"
order by "m"."k" desc, "m"."id" desc
limit $2
offset $3
