#!/bin/sh
# A scripted external proposer for search_cli_test that never answers: it starts a child that sleeps, records both
# process ids in the working directory (child.pid, then proposer.pid, each written whole) and waits for the child.
sleep 300 &
echo $! >child.tmp
mv child.tmp child.pid
echo $$ >proposer.tmp
mv proposer.tmp proposer.pid
wait
