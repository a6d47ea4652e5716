package repo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConfigTests reads config.yaml's tests as the pipelines do: a test is
// skipped for the operators whose name an ignore_operators pattern matches
// from its start.
func TestConfigTests(t *testing.T) {
	c, err := ParseConfig("config.yaml", []byte(`organization: community-operators
tests:
  - name: check_dangling_bundles
    ignore_operators:
      - ^assisted-service-operator
      - ack-.*
  - name: check_operator_name
    ignore_operators: [postgresql]
`))
	require.NoError(t, err)
	assert.Equal(t, "community-operators", c.Organization)
	assert.True(t, c.Ignores("check_dangling_bundles", "assisted-service-operator"))
	assert.True(t, c.Ignores("check_dangling_bundles", "ack-s3-controller"))
	assert.False(t, c.Ignores("check_dangling_bundles", "my-ack-s3"), "matched from the start only")
	assert.False(t, c.Ignores("check_upgrade_graph_loop", "assisted-service-operator"))
	assert.True(t, c.Ignores("check_operator_name", "postgresql-operator"))
	assert.False(t, (*Config)(nil).Ignores("check_dangling_bundles", "x"))

	_, err = ParseConfig("config.yaml", []byte("tests: {}\n"))
	assert.ErrorContains(t, err, "tests must be a list")
}
