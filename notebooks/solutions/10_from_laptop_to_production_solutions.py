"""Worked solutions for notebooks/10_from_laptop_to_production.ipynb."""

# Exercise 10.1: written before the cell ran. The policy's condition (user_id = the connection's user, noor) is
# added to the query's own WHERE user_id = 'maya': no row belongs to both.
rls_prediction = 0

# Exercise 10.2: the HNSW index hands over rows in order of increasing cosine distance (<=>), so the query must
# sort by the distance itself, ascending, and take the first five. Sorting by similarity (1 - distance)
# descending gives the same order on paper, but the planner cannot serve that expression from the index.
NEAREST = "SELECT id FROM items ORDER BY embedding <=> %(query)s LIMIT 5"
index_query = NEAREST      # the same query under the name its checker, check_index_query, goes by
